/**
 * Cookies by host, as a browser keeps them for a test that follows redirects itself
 * (a sign-in through an identity provider): names and values only; Max-Age=0 removes one.
 */
export class CookieJar {
  private readonly byHost = new Map<string, Map<string, string>>();

  /** The Cookie header for a request to `url`. */
  header(url: string): string {
    return [...(this.byHost.get(new URL(url).host) ?? [])].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** Keep what a response from `url` set. */
  take(url: string, setCookies: string[]): void {
    const host = new URL(url).host;
    const cookies = this.byHost.get(host) ?? new Map<string, string>();
    this.byHost.set(host, cookies);
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      if (attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) cookies.delete(name);
      else cookies.set(name, pair.slice(at + 1).trim());
    }
  }

  get(host: string, name: string): string | undefined {
    return this.byHost.get(host)?.get(name);
  }
}

/** One request without following a redirect, with the jar's cookies, keeping what it sets. */
export async function visit(url: string, jar: CookieJar): Promise<{ status: number; location?: string; text: string }> {
  const response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header(url) } });
  jar.take(url, response.headers.getSetCookie());
  const location = response.headers.get('location');
  return { status: response.status, location: location ? new URL(location, url).href : undefined, text: await response.text() };
}
