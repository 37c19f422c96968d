/** What the page learns from its own address and from the server's HTML: the token and the embedding origin. */

/** The token is the last path segment of /sign/{token}. */
export function tokenFromLocation(location: Location = window.location): string | null {
  const match = /\/sign\/([A-Za-z0-9_-]{20,100})\/?$/.exec(location.pathname);
  return match ? match[1]! : null;
}

/**
 * The origin allowed to frame this page (embedded signing sessions). The server writes it into the HTML
 * (the same origin it puts into frame-ancestors), so the page knows it even when the link is dead.
 */
export function embedOrigin(doc: Document = document): string | null {
  const content = doc.querySelector<HTMLMetaElement>('meta[name="mohar-embed-origin"]')?.content ?? '';
  return /^https?:\/\/[^/\s]+$/.test(content) ? content : null;
}

/** Only http(s) addresses are followed after an act (never javascript: or data:). */
export function safeRedirect(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url, window.location.href);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/** The mohar:// deep link that opens this signing link in Mohar Desktop. */
export function desktopDeepLink(href: string = window.location.href): string {
  return `mohar://sign?url=${encodeURIComponent(href)}`;
}
