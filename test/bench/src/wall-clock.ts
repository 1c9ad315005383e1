/** The bench's clock: wall-clock milliseconds on the system clock, comparable across processes (see its module). */
export { wallNow } from '@podconfig/testing/wall-clock';
