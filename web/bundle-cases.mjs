// The packager's "Test cases" card: a .pte (chosen here, else the one just
// built, else the one loaded) and safetensors files of test cases (named
// METHOD.CASE.input.I / METHOD.CASE.output.I: see the package docs) become
// a BundledProgram (.bpte) to download, through the same two calls the CLI's
// `bundle` makes (et.testCasesFromSafetensors, et.serializeBundledProgram).
// Refusals are shown with the validator's plain words (explain.mjs).
import { el, fmt, download, errorText, readFile } from './common.mjs';
import { explain } from './explain.mjs';

// Plain words for what this card alone meets (INVALID_INPUT here is the
// naming, not validate's findings); the rest as the validator says them.
function plainWords(code) {
  if (code === 'INVALID_INPUT') {
    return 'The safetensors files do not make test cases: name each value METHOD.CASE.input.I or METHOD.CASE.output.I, '
      + 'numbered from 0 without gaps, each name in one file only (values that are no tensor: metadata "Int 5", "Double 1.5", "Bool true", "None").';
  }
  if (/^SAFETENSORS_/.test(code)) return 'A file is not a safetensors file the reader accepts: its header length, JSON header or tensor offsets are wrong.';
  return explain(code);
}

// getProgram() -> { name, bytes } of the program to bundle, or null.
export function wireBundleCases({ etReady, pteInput, casesInput, button, out, links, getProgram }) {
  const show = (text, isError = false, code = null) => {
    out.replaceChildren(el('p', { class: `status${isError ? ' error' : ''}`, role: 'status', text }));
    if (isError && code && code !== 'INVALID_ARGUMENT') out.append(el('p', { class: 'hint', text: plainWords(String(code)) }));
  };
  button.addEventListener('click', async () => {
    for (const a of links.querySelectorAll('a')) URL.revokeObjectURL(a.href);
    links.replaceChildren();
    try {
      const et = await etReady;
      await et.ready();
      // The program's bytes are read whole once: they sit inside the bundle.
      const chosen = pteInput.files[0];
      const program = chosen ? { name: chosen.name, bytes: await readFile(chosen) } : await getProgram();
      if (!program) { show('Choose a .pte (or load or build one above) first.', true); return; }
      if (!casesInput.files.length) { show('Choose the safetensors files of the test cases first.', true); return; }
      show('Bundling…');
      const cases = await et.testCasesFromSafetensors([...casesInput.files]);
      const bytes = et.serializeBundledProgram({ ...cases, program: program.bytes });
      const name = `${program.name.replace(/\.pte$/i, '')}.bpte`;
      const blob = new Blob([bytes], { type: 'application/octet-stream' });
      const count = cases.method_test_suites.reduce((n, s) => n + s.test_cases.length, 0);
      show(`Wrote ${name} (${fmt(blob.size)}): ${cases.method_test_suites.length} suite(s), ${count} test case(s). Check it in the Validator.`);
      links.append(el('a', { href: URL.createObjectURL(blob), download: name, text: `Download ${name} (${fmt(blob.size)})` }));
      download(blob, name);
    } catch (e) {
      show(`Not bundled: ${errorText(e)}`, true, e?.code);
    }
  });
}
