import { _, type CodeKeywordDefinition, type KeywordCxt } from 'ajv';
import { useFunc } from 'ajv/dist/compile/util';
import ucs2length from 'ajv/dist/runtime/ucs2length';
import limitLength from 'ajv/dist/vocabularies/validation/limitLength';

/**
 * `maxLength` and `minLength` as ajv's own (code points, the same messages and `$data`), but
 * without counting every code point of every string: a string has at most as many code points
 * as UTF-16 units and at least half as many, so only one near the limit is counted. Ajv counts
 * all of them, which made a 1 MB argument cost more than parsing its body.
 * @internal
 */
export const STRING_LENGTH_KEYWORDS: CodeKeywordDefinition = {
  ...limitLength,
  code(cxt: KeywordCxt) {
    const { keyword, data, schemaCode, gen } = cxt;
    const count = useFunc(gen, ucs2length);
    cxt.fail$data(
      keyword === 'maxLength'
        ? _`${data}.length > ${schemaCode} && ${count}(${data}) > ${schemaCode}`
        : _`${data}.length < 2 * ${schemaCode} && ${count}(${data}) < ${schemaCode}`,
    );
  },
};
