// Human output of inspect()'s requirements, memory plan, largest constants
// and compile specs, and the parsing of validate's target options. Every
// name from a file goes through printable()/table() (src/cli/format.mjs).
import { fmtBytes, indent, printable, table } from './format.mjs';

const shape = (s) => (s ? `[${s.join(', ')}]` : '-');

// "Needs ExecuTorch >= 0.6 · backends: XnnpackBackend · 14 kernels · 2 .ptd keys"
export function requirementsLine(r) {
  const parts = [`Needs ExecuTorch >= ${printable(r.minRuntimeVersion)}`];
  parts.push(`backends: ${r.backends.length ? r.backends.map(printable).join(', ') : 'none'}`);
  parts.push(`${r.operators.length} kernel(s)`);
  if (r.externalData.length) parts.push(`${r.externalData.length} .ptd key(s)`);
  return parts.join(' · ');
}

// The "Requirements" section of `inspect`.
export function formatRequirements(r) {
  const out = ['Requirements', `  ${requirementsLine(r)}`];
  if (r.features.length) {
    out.push('', indent(table(['feature', 'since', 'where'], r.features.map((f) => [f.feature, f.since, f.where ?? ''])), 2));
  }
  if (r.operators.length) out.push('', `  kernels: ${r.operators.map(printable).join(', ')}`);
  if (r.unusedOperators?.length) out.push(`  unused operator entries (no instruction calls them): ${r.unusedOperators.map(printable).join(', ')}`);
  if (r.externalData.length) {
    out.push('', indent(table(['.ptd key', 'dtype', 'shape', 'bytes', 'methods'],
      r.externalData.map((e) => [e.key, e.dtype, shape(e.shape), e.bytes, e.methods.join(', ')])), 2));
  }
  return out.join('\n');
}

// One line of a method's memory plan.
export function memoryLine(m) {
  if (!m.memory) return null;
  const buffers = m.memory.plannedBuffers.map((b) => fmtBytes(b)).join(', ');
  return `memory plan: ${fmtBytes(m.memory.plannedTotal)} in ${m.memory.plannedBuffers.length} buffer(s)${buffers ? ` [${buffers}]` : ''}`;
}

// Compile specs of one delegate: key=value (values only when printable text
// or a small integer; otherwise the byte count).
export function compileSpecsLine(d) {
  const specs = d.compileSpecValues ?? [];
  if (!specs.length) return null;
  return `compile specs of delegate ${d.index}: ${specs
    .map((s) => `${printable(s.key)}=${s.value === null ? `<${s.bytes} bytes>` : printable(s.value)}`).join(', ')}`;
}

// The 10 largest constants as a table.
export function formatLargestConstants(list) {
  if (!list || !list.length) return null;
  return indent(table(['largest constants', 'bytes', 'dtype', 'shape', 'where'],
    list.map((c) => [c.name, fmtBytes(c.bytes), c.dtype, shape(c.shape), c.where])), 2);
}

// validate's --runtime/--backends/--deprecated-constant-buffer as et.validate() options.
export function validateTargetOptions(options) {
  const out = {};
  if (options.runtime !== undefined) out.runtime = options.runtime;
  if (options.backends !== undefined) out.backends = options.backends.split(',').map((s) => s.trim()).filter(Boolean);
  if (options['deprecated-constant-buffer']) out.deprecatedConstantBuffer = true;
  return out;
}
