/**
 * `promise`, or a rejection with the signal's reason when `signal` aborts first. The promise keeps
 * running and its late rejection is handled here, so abandoning it is safe; its owner must still
 * make it end (an undici request whose connect is pending ends when its dispatcher is destroyed,
 * or at its connect timeout). Used where an operation does not listen to its signal at every
 * stage: undici 7 ignores a request's signal while the TCP/TLS connect is pending.
 */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(noop);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: Error) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

function noop(): void {
  // the abandoned promise's rejection: nobody waits for it any more
}
