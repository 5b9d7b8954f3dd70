// et.profile off the page's thread (profile-view.mjs): an ETDump of
// 200,000 runs takes the core seconds to join, and the page must keep
// answering meanwhile. One message in ({etdump, pte}: bytes), one out
// ({result} or {error: {code, message}}).
import init from './pkg/index.browser.mjs';

const ready = init();
self.onmessage = async ({ data }) => {
  try {
    const et = await ready;
    self.postMessage({ result: et.profile(data.etdump, data.pte) });
  } catch (e) {
    self.postMessage({ error: { code: e?.code ?? null, message: String(e?.message ?? e) } });
  }
};
