/** A health check for load balancers and the desktop app (the root page is the console: console-page.ts). */
import type { App } from './types.js';

export function healthRoutes(app: App): void {
  app.get('/healthz', { schema: { hide: true } }, () => ({ status: 'ok' }));
}
