// Types of build-cli.mjs, for the test setup that calls it.
import type { BuildResult } from 'esbuild';

export function buildCli(): Promise<BuildResult<{ metafile: true }>>;
