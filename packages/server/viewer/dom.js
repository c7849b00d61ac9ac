// Small DOM helpers for the viewer: building elements from data without innerHTML (every string
// from the ledger goes in as text, so a turn cannot inject markup), and formatting of times,
// token counts and turn content. No framework: the page is a handful of lists.

/**
 * Creates an element. `attributes` sets properties for `on…` handlers, `class` and `data-*`;
 * children are nodes, strings (as text) or arrays of them; null and false are skipped.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (name === 'class') element.className = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces everything inside `element`. */
export function replaceChildren(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

export function formatTime(milliseconds) {
  if (typeof milliseconds !== 'number') return '';
  const date = new Date(milliseconds);
  return `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 19)}`;
}

export function formatTokens(count) {
  return `${Number(count ?? 0).toLocaleString('en-US')} tok`;
}

/**
 * What a person reads in a turn's content: text as text, a tool result as `← result`, a tool call
 * as `→ name(input)` with its input made readable (toolInput).
 */
export function contentNodes(content) {
  if (typeof content === 'string') return [content];
  return (content ?? []).flatMap((block, index) => {
    const separator = index ? ['\n'] : [];
    if (block.type === 'text') return [...separator, block.text];
    if (block.type === 'tool_use') return [...separator, ...toolInput(block.name, block.input)];
    if (block.type === 'tool_result') return [...separator, `← ${block.is_error ? 'error: ' : ''}${toolResultText(block)}`];
    return [...separator, JSON.stringify(block)];
  });
}

/** Short JSON input inline; longer JSON pretty-printed below the call. */
const INLINE_INPUT = 80;

/**
 * A tool call's input, readable: a patch, script or file body is a string with line breaks, which
 * JSON would show as one line of `\n`s, so a string input (or each such field of an object, a
 * Codex `apply_patch`'s `input`, say) is preformatted text with its line breaks, and the other
 * fields stay JSON on the call's line.
 */
function toolInput(name, input) {
  const block = (text, field) => h('pre', { class: 'tool-input', 'data-name': field }, text);
  if (typeof input === 'string') return [`→ ${name}`, block(input)];
  const fields = input && typeof input === 'object' && !Array.isArray(input) ? Object.entries(input) : [];
  const long = fields.filter(([, value]) => linesOf(value) !== null);
  if (long.length > 0) {
    const rest = fields.filter(([, value]) => linesOf(value) === null);
    return [
      `→ ${name}${rest.length ? `(${JSON.stringify(Object.fromEntries(rest))})` : ''}`,
      // A lone field needs no name: the call's name says what it is.
      ...long.map(([field, value]) => block(linesOf(value), fields.length > 1 ? field : null)),
    ];
  }
  const json = JSON.stringify(input) ?? '';
  return json.length <= INLINE_INPUT ? [`→ ${name}(${json})`] : [`→ ${name}`, block(JSON.stringify(input, null, 2))];
}

/** The text of a multi-line string, or of a command given as words one of which has lines. */
function linesOf(value) {
  if (typeof value === 'string') return value.includes('\n') ? value : null;
  const words = Array.isArray(value) && value.every((word) => typeof word === 'string');
  return words && value.some((word) => word.includes('\n')) ? value.join(' ') : null;
}

function toolResultText(block) {
  if (typeof block.content === 'string') return block.content;
  return (block.content ?? []).map((part) => part.text).join('\n');
}

/**
 * What a turn is, for its heading: its role, or what an importer marked it as. pi's summary of a
 * branch it left is stored as a user turn with `metadata.pi.branchSummaryFrom` (the pi entry the
 * branch left from, or null).
 */
export function turnKind(turn) {
  const pi = turn.metadata?.pi;
  if (pi && typeof pi === 'object' && 'branchSummaryFrom' in pi) return 'branch summary';
  return turn.role;
}

/** A search snippet marks matches with [ and ]: those become <mark>, the rest stays text. */
export function snippetNodes(snippet) {
  const nodes = [];
  const pattern = /\[([^[\]]*)\]/g;
  let last = 0;
  for (let match = pattern.exec(snippet); match; match = pattern.exec(snippet)) {
    if (match.index > last) nodes.push(snippet.slice(last, match.index));
    nodes.push(h('mark', {}, match[1]));
    last = match.index + match[0].length;
  }
  if (last < snippet.length) nodes.push(snippet.slice(last));
  return nodes;
}

/** A short, shrinkable block of long text (or nodes): the first lines, and a button that shows the rest. */
export function collapsible(content, { lines = 6, className = 'prose' } = {}) {
  const body = h('div', { class: `${className} clamped`, style: `--lines: ${lines}` }, content);
  const text = body.textContent;
  const total = text.split('\n').length;
  if (total <= lines && text.length < lines * 120) {
    body.classList.remove('clamped');
    return body;
  }
  const toggle = h('button', { class: 'link', type: 'button' }, 'show all');
  toggle.addEventListener('click', () => {
    const clamped = body.classList.toggle('clamped');
    toggle.textContent = clamped ? 'show all' : 'show less';
  });
  return h('div', {}, body, toggle);
}

/** A message a person can act on, in place of a view that failed to load. */
export function errorBox(error) {
  const code = error?.code ? `${error.code}: ` : '';
  return h('div', { class: 'error', role: 'alert' }, `${code}${error?.message ?? String(error)}`);
}
