import { RE2JS } from 're2js';

/**
 * A user's regular expression (plan checks, `--grep`, simulator prompt rules), run by RE2: matching takes time linear in the text, so no
 * pattern can hang the harness. The price is RE2 syntax: no backreferences, no lookaround.
 */
export type LinearRegex = RE2JS;

export type CompiledRegex = { ok: true; regex: LinearRegex } | { ok: false; what: string; todo: string };

/** `source` compiled for the linear-time engine, or what is wrong with it, as "what" and "what to do". */
export function compileLinearRegex(source: string, opts: { ignoreCase?: boolean } = {}): CompiledRegex {
  try {
    return { ok: true, regex: RE2JS.compile(source, opts.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) };
  } catch (e) {
    const detail = (e as Error).message.replace(/^error parsing regexp: /, '');
    return supportedByJavaScript(source)
      ? {
          ok: false,
          what: `regular expression ${JSON.stringify(source)} uses syntax the linear-time engine does not support (${detail})`,
          todo: 'rewrite it in RE2 syntax: no backreferences or lookaround',
        }
      : {
          ok: false,
          what: `invalid regular expression ${JSON.stringify(source)}: ${detail}`,
          todo: 'fix the pattern (RE2 syntax; escape special characters with \\)',
        };
  }
}

/** Only tells a broken pattern from an unsupported one: compiling a JavaScript RegExp never runs it, so it cannot hang. */
function supportedByJavaScript(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}
