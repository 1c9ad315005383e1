/** The value of one sample of a Prometheus text exposition, whatever the label order; 0 when absent. */
export function metricSample(metrics: string, name: string, labels: Readonly<Record<string, string>>): number {
  for (const line of metrics.split('\n')) {
    const m = /^(\w+)\{(.*)\} (\S+)$/.exec(line);
    if (m?.[1] !== name) continue;
    const got = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return 0;
}
