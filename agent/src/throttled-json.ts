/**
 * A JSON body that is costly to build (`/pods` and `/sources` grow with the pod set: 58 MB and ~1 s at 50,000 pods,
 * on the event loop) is reused for five times as long as its build took, so that clients asking in a loop keep the
 * loop at most a sixth busy with each endpoint instead of stalling the health checks and the pipeline, and is let go
 * when that time is over. A body built in under {@link THROTTLE_FROM_MS} is never reused: a node's few hundred pods
 * show their state as it is at every request.
 */
export const THROTTLE_FROM_MS = 50;
const REUSE_FACTOR = 5;

export class ThrottledJson {
  readonly #build: () => unknown;
  readonly #now: () => number;
  #body: string | undefined;
  #reuseUntil = 0;
  #release: NodeJS.Timeout | undefined;

  constructor(build: () => unknown, now: () => number = () => performance.now()) {
    this.#build = build;
    this.#now = now;
  }

  /** The body as JSON text: the last one while it may be reused, else a new one. */
  text(): string {
    const started = this.#now();
    if (this.#body !== undefined && started < this.#reuseUntil) return this.#body;
    const body = JSON.stringify(this.#build());
    const finished = this.#now();
    const took = finished - started;
    clearTimeout(this.#release);
    this.#body = undefined;
    this.#reuseUntil = 0;
    if (took >= THROTTLE_FROM_MS) {
      this.#body = body;
      this.#reuseUntil = finished + REUSE_FACTOR * took;
      // Not kept past its use: at 50,000 pods it is 58 MB.
      this.#release = setTimeout(() => { this.#body = undefined; }, REUSE_FACTOR * took).unref();
    }
    return body;
  }
}
