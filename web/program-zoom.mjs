// The Program view's canvas: a scrolling box holding the SVG at a scale.
// "Fit" is the largest scale at which the window fits the card's width, but
// never below MIN_SCALE (labels stay at least 10 px: a wide window scrolls
// inside the card, it is never shrunk); the canvas is as tall as the graph
// up to MAX_HEIGHT. Native scrolling gives touch panning; the arrow keys
// scroll, + and − zoom, 0 fits; ctrl + wheel (and pinch) zooms.
import { FONT } from './program-graph.mjs';

export const MIN_SCALE = 10 / FONT;
const MAX_SCALE = 2;
const MAX_HEIGHT = 560;

// `first`: the point (SVG units) Fit brings into view (the window's first instruction).
export function zoomer(canvas, svg, width, height, first = null) {
  let scale = 1;
  const apply = (s, cx = 0.5, cy = 0.5) => {
    const before = { x: canvas.scrollLeft + canvas.clientWidth * cx, y: canvas.scrollTop + canvas.clientHeight * cy, s: scale };
    scale = Math.min(MAX_SCALE, Math.max(s, MIN_SCALE));
    svg.setAttribute('width', (width * scale).toFixed(0));
    svg.setAttribute('height', (height * scale).toFixed(0));
    svg.dataset.scale = scale.toFixed(4);
    canvas.style.height = `${Math.min(MAX_HEIGHT, Math.ceil(height * scale) + 4)}px`;
    const f = scale / before.s;
    canvas.scrollLeft = before.x * f - canvas.clientWidth * cx;
    canvas.scrollTop = before.y * f - canvas.clientHeight * cy;
  };
  const fit = () => {
    const room = Math.max(1, canvas.clientWidth - 4);
    apply(Math.min(1.2, room / width));
    canvas.scrollLeft = first ? first.x * scale - canvas.clientWidth / 2 : 0;
    canvas.scrollTop = 0;
  };
  const zoom = (factor) => apply(scale / factor);
  canvas.onkeydown = (ev) => {
    const step = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[ev.key];
    if (ev.target !== canvas && step) return;  // arrows on a box move between boxes
    if (step) canvas.scrollBy(step[0] * 80, step[1] * 80);
    else if (ev.key === '+' || ev.key === '=') zoom(0.8);
    else if (ev.key === '-' || ev.key === '−') zoom(1.25);
    else if (ev.key === '0') fit();
    else return;
    ev.preventDefault();
  };
  canvas.onwheel = (ev) => {
    if (!ev.ctrlKey) return;  // a plain wheel scrolls (the page or the canvas)
    ev.preventDefault();
    const r = canvas.getBoundingClientRect();
    apply(scale * (ev.deltaY > 0 ? 1 / 1.1 : 1.1), (ev.clientX - r.left) / r.width, (ev.clientY - r.top) / r.height);
  };
  fit();
  return { zoom, fit, get scale() { return scale; } };
}
