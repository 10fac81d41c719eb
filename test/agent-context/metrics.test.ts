import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMetricsRegistry } from '../../src/agent-context/metrics.ts';

test('createMetricsRegistry() renders HELP, TYPE and samples, escaping label values and help text', () => {
  const registry = createMetricsRegistry();
  const counter = registry.counter('x_requests_total', 'Requests\\by "route"\nsecond line', [{ route: '/a' }]);
  counter.inc({ route: 'quote"back\\slash\nnewline' }, 2);
  counter.inc({ route: '/a' });
  registry.gauge('x_unknown', 'Not yet known', () => []);
  registry.gauge('x_value_bytes', 'A value', () => [{ value: 1.5 }, { labels: { b: '2', a: '1' }, value: Number.NaN }]);
  assert.equal(registry.render(), [
    '# HELP x_requests_total Requests\\\\by "route"\\nsecond line',
    '# TYPE x_requests_total counter',
    'x_requests_total{route="/a"} 1',
    'x_requests_total{route="quote\\"back\\\\slash\\nnewline"} 2',
    '# HELP x_unknown Not yet known',
    '# TYPE x_unknown gauge',
    '# HELP x_value_bytes A value',
    '# TYPE x_value_bytes gauge',
    'x_value_bytes 1.5',
    'x_value_bytes{a="1",b="2"} NaN',
    '',
  ].join('\n'));
});

test('createMetricsRegistry() refuses a counter without _total, an invalid name and a repeated one', () => {
  const registry = createMetricsRegistry();
  assert.throws(() => registry.counter('x_requests', 'h'), /must end in "_total"/);
  assert.throws(() => registry.gauge('x-y', 'h', () => []), /not a valid Prometheus name/);
  registry.gauge('x_y', 'h', () => []);
  assert.throws(() => registry.gauge('x_y', 'h', () => []), /registered twice/);
});
