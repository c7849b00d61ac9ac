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

/** The text a person reads in a turn's content blocks; tool calls and results get one line each. */
export function contentText(content) {
  if (typeof content === 'string') return content;
  return (content ?? [])
    .map((block) => {
      if (block.type === 'text') return block.text;
      if (block.type === 'tool_use') return `→ ${block.name}(${JSON.stringify(block.input)})`;
      if (block.type === 'tool_result') return `← ${block.is_error ? 'error: ' : ''}${toolResultText(block)}`;
      return JSON.stringify(block);
    })
    .join('\n');
}

function toolResultText(block) {
  if (typeof block.content === 'string') return block.content;
  return (block.content ?? []).map((part) => part.text).join('\n');
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

/** A short, shrinkable block of long text: the first lines, and a button that shows the rest. */
export function collapsible(text, { lines = 6, className = 'prose' } = {}) {
  const body = h('div', { class: `${className} clamped`, style: `--lines: ${lines}` }, text);
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
