/**
 * One request to the ESP simulator built into the server for test data (aadhaar/sandbox-esp.ts), as its route
 * (routes/sandbox-esp.ts) hands it over: the method, the path below SANDBOX_ESP_PATH and a way to read the body.
 * Refused (422 aadhaar_not_configured) when MOHAR_ESIGN_SANDBOX=0.
 */
import { answerSimulator, type SimulatorAnswer } from '../../aadhaar/simulator/server.js';
import type { Context } from '../context.js';
import { sandboxSimulator } from './esign-for.js';

export interface SandboxEspRequest {
  readonly method: string;
  /** The path below SANDBOX_ESP_PATH, from /esign/2.1 on. */
  readonly path: string;
  readonly readBody: () => Promise<string>;
}

export async function answerSandboxEsp(ctx: Context, request: SandboxEspRequest): Promise<SimulatorAnswer> {
  const esp = await sandboxSimulator(ctx);
  return answerSimulator(esp, request.method, request.path, request.readBody);
}
