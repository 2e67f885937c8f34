/**
 * Decides whether a form field asks for a secret that must never travel through a form
 * elicitation (the client and the model may see form answers). Looks at the field's name, title,
 * description and format as normalised words, not at one spelling.
 *
 * @publicApi
 */
export interface SecretFieldPolicy {
  /** The concept the field asks for (e.g. `password`), or `undefined` when it is not a secret. */
  secretConcept(field: {
    name: string;
    title?: string;
    description?: string;
    format?: string;
  }): string | undefined;
}

/**
 * The reviewed default concepts, each a pattern over space-separated lower-case words. Token counts
 * (`maxTokens`, `tokenCount`) are not secrets; a bare `token` field is.
 * @internal
 */
export const DEFAULT_SECRET_CONCEPTS: Readonly<Record<string, RegExp>> = {
  password:
    /\b(pass ?word|passwd|pwd|pass ?phrase|pass ?code|pin|pin ?code|pin ?number|security (question|answer))\b/,
  'API key or token':
    /\b(api ?key|apikey|apitoken|authtoken|accesstoken|access ?key|secret ?key|client secret|secret(?! santa)|(?<!\b(max|min|num|number of|total|input|output|prompt|completion) )tokens?(?! (count|counts|limit|limits|budget|usage|used))|credentials?|private ?key|session ?id|session cookie|cookie|jwt)\b/,
  'recovery phrase': /\b(seed ?phrase|seed words|mnemonic|recovery ?phrase|recovery words)\b/,
  'payment card or bank account':
    /\b(credit ?card|debit ?card|card ?number|card ?no|pan|cvv2?|cvc2?|csc|card security code|card verification|expiry|expiration date|iban|bank ?account( ?number)?|routing ?number|sort ?code)\b/,
  'government identifier':
    /\b(ssn|social security( ?number)?|national insurance( ?number)?|tax ?id|passport ?number)\b/,
  'verification code':
    /\b(otp|one ?time (pass ?word|code|pin)|verification ?code|auth(entication)? code|security code|2fa|mfa|totp|sms code|recovery code|backup code|code (that )?(we )?(texted|sent|emailed)|texted code)\b/,
};

/** Splits camelCase, snake_case, kebab-case and punctuation into lower-case words. @internal */
export function normaliseWords(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .toLowerCase();
}

/** The default policy: {@link DEFAULT_SECRET_CONCEPTS}, plus `format: "password"`. @publicApi */
export class ConceptSecretFieldPolicy implements SecretFieldPolicy {
  /** The reviewed concepts the default policy knows; spread them to extend the policy. */
  static readonly DEFAULT_CONCEPTS: Readonly<Record<string, RegExp>> = DEFAULT_SECRET_CONCEPTS;

  constructor(
    private readonly concepts: Readonly<Record<string, RegExp>> = DEFAULT_SECRET_CONCEPTS,
  ) {}

  secretConcept(field: {
    name: string;
    title?: string;
    description?: string;
    format?: string;
  }): string | undefined {
    if (field.format === 'password') return 'password';
    const text = [field.name, field.title, field.description]
      .filter(Boolean)
      .map((part) => normaliseWords(part as string))
      .join(' | ');
    for (const [concept, pattern] of Object.entries(this.concepts)) {
      if (pattern.test(text)) return concept;
    }
    return undefined;
  }
}
