import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { context, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

/**
 * The real OpenTelemetry SDK for the tracing tests: a BasicTracerProvider whose spans go, once
 * ended, to an InMemorySpanExporter, and AsyncLocalStorage as the context manager, so that the
 * active span follows a call through its awaits and timers as it does in an application.
 * `stop()` puts the global context manager back (none) and shuts the provider down.
 */
export function tracing(): {
  readonly provider: BasicTracerProvider;
  readonly tracer: Tracer;
  readonly spans: () => ReadableSpan[];
  readonly stop: () => Promise<void>;
} {
  const manager = new AsyncLocalStorageContextManager().enable();
  if (!context.setGlobalContextManager(manager)) throw new Error('a global context manager is already set');
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return {
    provider,
    tracer: provider.getTracer('breakwater-test'),
    spans: () => exporter.getFinishedSpans(),
    stop: async () => {
      context.disable();
      await provider.shutdown();
    },
  };
}

/** A span of the test's own, as an application's request span would be, and the context it is active in. */
export function requestSpan(tracer: Tracer, name = 'checkout'): { readonly span: Span; readonly ctx: Context } {
  const span = tracer.startSpan(name);
  return { span, ctx: trace.setSpan(context.active(), span) };
}

/** A finished span's events as `[name, attributes]`, in order. */
export function events(span: ReadableSpan): [string, Attributes][] {
  return span.events.map((e) => [e.name, e.attributes ?? {}]);
}

/** The one finished span named `name`. */
export function spanNamed(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((s) => s.name === name);
  if (found.length !== 1) throw new Error(`expected one span named '${name}', got ${found.length} (${spans.map((s) => s.name).join(', ')})`);
  return found[0]!;
}
