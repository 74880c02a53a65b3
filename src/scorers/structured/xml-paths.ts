// Element paths (`root.child.0`) looked up the way promptfoo looks them up in fast-xml-parser's object.
import type { XmlElement, XmlTree } from './xml-parser.js';

type PathView =
  | { kind: 'top'; roots: XmlElement[] }
  | { kind: 'element'; element: XmlElement }
  | { kind: 'list'; items: XmlElement[] }
  | { kind: 'leaf' };

/** An element as promptfoo's parsed object holds it: a plain value when it has no attributes or children. */
function viewOf(element: XmlElement): PathView {
  return element.attributes.size === 0 && element.children.length === 0
    ? { kind: 'leaf' }
    : { kind: 'element', element };
}

function namedView(elements: XmlElement[], name: string): PathView | undefined {
  const matches = elements.filter((e) => e.name === name);
  if (matches.length === 0) return undefined;
  return matches.length === 1 ? viewOf(matches[0]) : { kind: 'list', items: matches };
}

function step(view: PathView, key: string): PathView | undefined {
  switch (view.kind) {
    case 'top':
      return namedView(view.roots, key);
    case 'list': {
      const index = Number(key);
      if (!Number.isInteger(index) || index < 0 || String(index) !== key || index >= view.items.length)
        return undefined;
      return viewOf(view.items[index]);
    }
    case 'element': {
      const { element } = view;
      if (key.startsWith('@_')) return element.attributes.has(key.slice(2)) ? { kind: 'leaf' } : undefined;
      if (key === '#text') return element.text.trim() !== '' ? { kind: 'leaf' } : undefined;
      return namedView(element.children, key);
    }
    default:
      return undefined;
  }
}

/**
 * Whether a dotted path (`root.child.0.leaf`) exists, with promptfoo's reading of the parsed object:
 * a name repeated among siblings becomes a list that only a numeric segment can enter, an element
 * with neither attributes nor children is a plain value with nothing inside, `@_attr` names an
 * attribute and `#text` the text of an element that also has attributes or children.
 */
export function hasXmlPath(tree: XmlTree, path: string): boolean {
  let view: PathView | undefined = { kind: 'top', roots: tree.roots };
  for (const key of path.split('.')) {
    view = step(view, key);
    if (!view) return false;
  }
  return true;
}
