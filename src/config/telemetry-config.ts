/**
 * Metrics and traces: `TSUKA_METRICS_TOKEN` (what `/metrics` asks for; required to read it when
 * the HTTP server is not on loopback) and the OpenTelemetry variables — traces are exported only
 * when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set.
 */

export interface TelemetryConfig {
  metricsToken?: string;
  /** Set: runs, model calls, tool calls, approvals and platform calls are exported as spans. */
  otlp?: {
    endpoint: string;
    /** `http/protobuf` (the OpenTelemetry default), `http/json` or `grpc`. */
    protocol: OtlpProtocol;
    serviceName: string;
    /** `OTEL_EXPORTER_OTLP_HEADERS` (e.g. an API key), kept here: secrets leave the process environment at start. */
    headers: Record<string, string>;
  };
}

const PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
export type OtlpProtocol = (typeof PROTOCOLS)[number];

export function readTelemetryConfig(environment: NodeJS.ProcessEnv, problems: string[]): TelemetryConfig {
  const value = (name: string) => (environment[name] === undefined || environment[name] === '' ? undefined : environment[name]);
  const metricsToken = value('TSUKA_METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 16)
    problems.push('TSUKA_METRICS_TOKEN is shorter than 16 characters: use a long random value (e.g. `openssl rand -hex 32`).');
  const tracesEndpoint = value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = value('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (tracesEndpoint === undefined && base === undefined) return metricsToken === undefined ? {} : { metricsToken };
  const protocolRaw = value('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? value('OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf';
  const protocol = (PROTOCOLS as readonly string[]).includes(protocolRaw) ? (protocolRaw as OtlpProtocol) : undefined;
  if (!protocol) problems.push(`OTEL_EXPORTER_OTLP_PROTOCOL="${protocolRaw}" is not valid: use ${PROTOCOLS.join(', ')}.`);
  // The signal-specific variable is the full URL; the general one is a base that gets /v1/traces (HTTP).
  const endpoint = tracesEndpoint ?? (protocol === 'grpc' ? base! : `${base!.replace(/\/+$/, '')}/v1/traces`);
  try {
    new URL(endpoint);
  } catch {
    problems.push(`OTEL_EXPORTER_OTLP_ENDPOINT="${base ?? tracesEndpoint}" is not a URL: use e.g. http://127.0.0.1:4318.`);
  }
  return {
    ...(metricsToken === undefined ? {} : { metricsToken }),
    otlp: {
      endpoint,
      protocol: protocol ?? 'http/protobuf',
      serviceName: value('OTEL_SERVICE_NAME') ?? 'tsuka',
      headers: parseHeaders(value('OTEL_EXPORTER_OTLP_TRACES_HEADERS') ?? value('OTEL_EXPORTER_OTLP_HEADERS')),
    },
  };
}

/** `key1=value1,key2=value2`, values percent-decoded (the OpenTelemetry format). */
function parseHeaders(raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}
