// Types of pack.mjs, for the test that installs the tarballs.
export const PACKS: string;
export const PUBLISHABLE: string[];
export function packAll(options?: {
  skipCliBuild?: boolean;
  destination?: string;
}): Promise<Array<{ name: string; version: string; file: string }>>;
