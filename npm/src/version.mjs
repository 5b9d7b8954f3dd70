// The package version, kept equal to package.json's by scripts/check-dist.mjs
// (not read from package.json at run time: bundles do not carry it).
export const VERSION = '0.1.0';
