// Types of build-packages.mjs.
export const BUILD_ORDER: string[];
export function buildPackages(names?: string[]): void;
