import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HttpRequestMetrics } from '../../src/ops/http-request-metrics.ts';
import { parsePrometheusText, sampleValue } from '../ops/prom-text.ts';

describe('HttpRequestMetrics', () => {
  it('writes the counter and a cumulative histogram per route, method and status, as Prometheus reads them', async () => {
    const registry = new Registry();
    const m = new HttpRequestMetrics(registry, [0.01, 0.1]);
    const route = '/v2/invoices/:invoice_id';
    for (const s of [0.005, 0.01, 0.05, 0.2]) m.observe('GET', route, 200, s); // 0.01 is "le 0.01", as prom-client counts it
    m.observe('GET', route, 404, 0.001);
    m.observe('POST', '/v2/invoices', 201, 0.02);
    const { types, samples } = parsePrometheusText(await registry.metrics());
    expect(types.get('http_requests_total')).toBe('counter');
    expect(types.get('http_request_duration_seconds')).toBe('histogram');
    const ok = { method: 'GET', route, status_code: '200' };
    expect(sampleValue(samples, 'http_requests_total', ok)).toBe(4);
    expect(sampleValue(samples, 'http_requests_total', { method: 'GET', route, status_code: '404' })).toBe(1);
    expect(sampleValue(samples, 'http_requests_total', { method: 'POST', route: '/v2/invoices', status_code: '201' })).toBe(1);
    expect(sampleValue(samples, 'http_request_duration_seconds_bucket', { ...ok, le: '0.01' })).toBe(2);
    expect(sampleValue(samples, 'http_request_duration_seconds_bucket', { ...ok, le: '0.1' })).toBe(3);
    expect(sampleValue(samples, 'http_request_duration_seconds_bucket', { ...ok, le: '+Inf' })).toBe(4);
    expect(sampleValue(samples, 'http_request_duration_seconds_count', ok)).toBe(4);
    expect(sampleValue(samples, 'http_request_duration_seconds_sum', ok)).toBeCloseTo(0.265, 10);
    expect(samples.filter((s) => s.name === 'http_request_duration_seconds_bucket')).toHaveLength(9); // 3 series x (2 bounds + Inf)
  });

  it('is empty (but declared) before the first request', async () => {
    const registry = new Registry();
    new HttpRequestMetrics(registry, [1]);
    const { types, samples } = parsePrometheusText(await registry.metrics());
    expect([...types.keys()]).toEqual(['http_requests_total', 'http_request_duration_seconds']);
    expect(samples).toHaveLength(0);
  });
});
