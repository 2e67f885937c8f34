import type { IncomingMessage } from 'node:http';

const LOCAL_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) {
    const end = hostHeader.indexOf(']');
    return end === -1 ? hostHeader : hostHeader.slice(0, end + 1);
  }
  const colon = hostHeader.indexOf(':');
  return colon === -1 ? hostHeader : hostHeader.slice(0, colon);
}

/**
 * A refused request: which header failed, its value as sent, the option that would allow it (by
 * its full path, as the logs and the wire name it) and the fixed wire message.
 * @internal
 */
export interface HostOriginRefusal {
  readonly header: 'Host' | 'Origin';
  readonly value: string | undefined;
  readonly option: 'http.allowedHosts' | 'http.allowedOrigins';
  readonly message: string;
}

const HOST_REFUSAL = {
  header: 'Host',
  option: 'http.allowedHosts',
  message: 'Host header not allowed by http.allowedHosts',
} as const;
const ORIGIN_REFUSAL = {
  header: 'Origin',
  option: 'http.allowedOrigins',
  message: 'Origin header not allowed by http.allowedOrigins',
} as const;

/**
 * DNS-rebinding protection: which `Host` and `Origin` headers the endpoint accepts. Local names on
 * any port always pass; configured extras pass too.
 * @internal
 */
export class HostOriginPolicy {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;

  constructor(allowedHosts: readonly string[], allowedOrigins: readonly string[]) {
    this.hosts = new Set(allowedHosts.map((host) => host.toLowerCase()));
    this.origins = new Set(allowedOrigins.map((origin) => origin.toLowerCase().replace(/\/$/, '')));
  }

  /** Why a request is refused — the header and its value — or `undefined` when it may proceed. */
  refusal(req: IncomingMessage): HostOriginRefusal | undefined {
    const host = req.headers.host?.toLowerCase();
    if (!host || !this.hostAllowed(host)) return { ...HOST_REFUSAL, value: req.headers.host };
    const origin = req.headers.origin?.toLowerCase();
    if (origin !== undefined && !this.originAllowed(origin))
      return { ...ORIGIN_REFUSAL, value: req.headers.origin };
    return undefined;
  }

  private hostAllowed(host: string): boolean {
    const hostname = hostnameOf(host);
    return LOCAL_HOSTNAMES.has(hostname) || this.hosts.has(host) || this.hosts.has(hostname);
  }

  private originAllowed(origin: string): boolean {
    if (this.origins.has(origin)) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && LOCAL_HOSTNAMES.has(url.hostname)
    );
  }
}
