// The variables promptfoo reads to choose the interpreter of Python and Ruby user code (its
// format's `interpreters` hook; the generators of its own config use them too).
export const PROMPTFOO_INTERPRETERS = { python: 'PROMPTFOO_PYTHON', ruby: 'PROMPTFOO_RUBY' };
