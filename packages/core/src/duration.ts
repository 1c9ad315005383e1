const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000,
};
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * A Go duration (`time.ParseDuration`: the syntax of kubelet flags and KubeletConfiguration),
 * `300ms`, `20s`, `1m30s`, `1.5h` or `0`, in milliseconds; `undefined` when `text` is not one.
 * A leading `+` is taken, as Go takes it; a `-` and bare numbers other than `0` are rejected: a unit is required.
 */
export function parseDuration(text: string): number | undefined {
  const s = text.startsWith('+') ? text.slice(1) : text;
  if (s === '0') return 0;
  if (s === '') return undefined;
  PART.lastIndex = 0;
  let total = 0;
  let m: RegExpExecArray | null;
  while ((m = PART.exec(s)) !== null) {
    total += Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? Number.NaN);
    if (PART.lastIndex === s.length) return Number.isFinite(total) ? total : undefined;
  }
  return undefined;
}

/**
 * Milliseconds as Go's `time.Duration.String()` writes them, as the kubelet shows durations (its `--help` defaults,
 * its messages): `0s`, `500ms`, `1.5s`, `20s`, `1m0s`, `1m30s`, `1h0m0s`, `1h30m0.5s`; under a millisecond `µs` or
 * `ns`; a negative duration with a leading `-`.
 */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1) return abs < 1e-3 ? `${sign}${Math.round(abs * 1e6)}ns` : `${sign}${abs * 1000}µs`;
  if (abs < 1000) return `${sign}${abs}ms`;
  const h = Math.floor(abs / 3_600_000);
  const m = Math.floor((abs % 3_600_000) / 60_000);
  const sec = `${(abs % 60_000) / 1000}s`;
  if (h > 0) return `${sign}${h}h${m}m${sec}`;
  return m > 0 ? `${sign}${m}m${sec}` : `${sign}${sec}`;
}
