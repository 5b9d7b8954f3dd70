// The validator page's view of a BundledProgram (.bpte): its test cases per
// method (inputs and expected outputs: type, dtype, shape, bytes), then its
// embedded program as the page shows a .pte (`programEl`, given by the page).
// validate() has already checked each case against its method.
import { el, fmt, longTable } from './common.mjs';

const valueText = (v) => {
  if (v.type === 'Tensor') return `Tensor ${v.dtype ?? `type ${v.scalarType}`}[${(v.shape ?? []).join(', ')}] (${v.dataSize == null ? '—' : fmt(v.dataSize)})`;
  if (v.type === 'None') return 'None';
  return `${v.type} ${Object.is(v.value, -0) ? '-0' : String(v.value)}`;
};

export function bundledSummaryEl(name, s, programEl) {
  const box = el('div', {}, el('h3', { text: `${name} — bundled program (.bpte) version ${s.version}, ${fmt(s.fileSize)}` }));
  box.append(el('p', { text: s.program ? `Program: ${fmt(s.program.size)} at offset ${s.program.offset}` : 'No program in this bundle.' }));
  if (s.programError) box.append(el('p', { class: 'status error', text: `The program cannot be read: ${s.programError.code}: ${s.programError.message}` }));
  for (const suite of s.methodTestSuites) {
    const rows = [];
    suite.testCases.forEach((c, i) => {
      (c.inputs ?? []).forEach((v, k) => rows.push([i, `input ${k}`, valueText(v)]));
      (c.expectedOutputs ?? []).forEach((v, k) => rows.push([i, `expected output ${k}`, valueText(v)]));
    });
    box.append(el('h3', { text: `Test cases of ${suite.methodName ?? '(unnamed)'} (${suite.testCases.length})` }),
      rows.length ? longTable(['case', 'value', 'what'], rows, (r) => r) : el('p', { class: 'hint', text: 'No values.' }));
  }
  if (s.programSummary) box.append(programEl(`${name} (program)`, s.programSummary));
  return box;
}
