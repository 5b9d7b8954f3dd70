// et.profile off the page's thread (profile-view.mjs): an ETDump of
// 200,000 runs takes the core seconds to join, and the page must keep
// answering meanwhile. One message in ({etdump, pte}: bytes), one out
// ({result} or {error: {code, message}}); the result packed as text
// (core-pack.mjs: a structured clone of 200,000 runs took the page one
// ~3 s task to receive).
import init from './pkg/index.browser.mjs';
import { packResult } from './core-pack.mjs';

const ready = init();
self.onmessage = async ({ data }) => {
  try {
    const et = await ready;
    const { packed, transfer } = packResult(et.profile(data.etdump, data.pte));
    self.postMessage({ result: packed }, transfer);
  } catch (e) {
    self.postMessage({ error: { code: e?.code ?? null, message: String(e?.message ?? e) } });
  }
};
