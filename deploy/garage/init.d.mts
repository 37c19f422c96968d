/** Types of init.mjs (a plain ES module: it runs in the node image with nothing installed), for its test. */
export function setUpGarage(options: {
  adminUrl: string;
  adminToken: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  log?: (line: string) => void;
}): Promise<void>;
