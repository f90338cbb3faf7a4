// The HTTP request counter and latency histogram, counted in plain numbers and turned into
// Prometheus series only when scraped. prom-client's own Counter and Histogram validate and hash
// the label set on every observation (their labels() children too): 10 µs of a 200 µs API request
// in a CPU profile of `bench:api`. Both are registered as metric objects of the shape prom-client's
// registry reads (name, help, type, aggregator, get(): checked against prom-client 15.1.3).
import type { Metric, Registry } from 'prom-client';

interface Series {
  count: number;
  sum: number;
  /** observations per bucket (not cumulative); the last one is +Inf */
  buckets: Float64Array;
}
type Labels = Record<string, string | number>;

export class HttpRequestMetrics {
  // route pattern -> method -> status: map lookups on strings and numbers the router already holds
  private readonly series = new Map<string, Map<string, Map<number, Series>>>();

  constructor(
    registry: Registry,
    private readonly bounds: readonly number[],
  ) {
    this.register(registry, 'http_requests_total', 'HTTP requests by route pattern and status', 'counter', () =>
      this.all().map(([labels, s]) => ({ labels, value: s.count })),
    );
    this.register(registry, 'http_request_duration_seconds', 'HTTP request latency by route pattern and status', 'histogram', () =>
      this.all().flatMap(([labels, s]) => {
        let cumulative = 0;
        const buckets = [...this.bounds, '+Inf'].map((le, i) => ({
          metricName: 'http_request_duration_seconds_bucket',
          labels: { ...labels, le },
          value: (cumulative += s.buckets[i]),
        }));
        return [
          ...buckets,
          { metricName: 'http_request_duration_seconds_sum', labels, value: s.sum },
          { metricName: 'http_request_duration_seconds_count', labels, value: s.count },
        ];
      }),
    );
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (!byMethod) this.series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let s = byStatus.get(status);
    if (!s) byStatus.set(status, (s = { count: 0, sum: 0, buckets: new Float64Array(this.bounds.length + 1) }));
    s.count++;
    s.sum += seconds;
    let i = 0;
    while (i < this.bounds.length && seconds > this.bounds[i]) i++;
    s.buckets[i]++;
  }

  private all(): [Labels, Series][] {
    const out: [Labels, Series][] = [];
    for (const [route, byMethod] of this.series)
      for (const [method, byStatus] of byMethod) for (const [status, s] of byStatus) out.push([{ method, route, status_code: status }, s]);
    return out;
  }

  private register(
    registry: Registry,
    name: string,
    help: string,
    type: 'counter' | 'histogram',
    values: () => { metricName?: string; labels: Labels; value: number }[],
  ): void {
    const metric = { name, help, type, aggregator: 'sum', get: async () => ({ name, help, type, aggregator: 'sum', values: values() }) };
    registry.registerMetric(metric as unknown as Metric);
  }
}
