import {
  ConceptSecretFieldPolicy,
  DEFAULT_SECRET_CONCEPTS,
  normaliseWords,
} from './secret-field.policy';

const policy = new ConceptSecretFieldPolicy();

function concept(
  name: string,
  extra: { title?: string; description?: string; format?: string } = {},
): string | undefined {
  return policy.secretConcept({ name, ...extra });
}

describe('normaliseWords', () => {
  it.each([
    ['apiKey', 'api key'],
    ['api_key', 'api key'],
    ['API-Key', 'api key'],
    ['APIKey', 'api key'],
    ['creditCardNumber', 'credit card number'],
    ['  Enter the code!  ', 'enter the code'],
    ['user.email', 'user email'],
    ['v2Token', 'v2 token'],
  ])('normalises %p to %p', (text, words) => {
    expect(normaliseWords(text)).toBe(words);
  });
});

describe('ConceptSecretFieldPolicy (default concepts)', () => {
  it.each([
    ['password', 'password'],
    ['Password', 'password'],
    ['newPassword', 'password'],
    ['pass_word', 'password'],
    ['passwd', 'password'],
    ['pwd', 'password'],
    ['passphrase', 'password'],
    ['passcode', 'password'],
    ['pinCode', 'password'],
    ['apiKey', 'API key or token'],
    ['api_key', 'API key or token'],
    ['API token', 'API key or token'],
    ['accessToken', 'API key or token'],
    ['refresh_token', 'API key or token'],
    ['bearerToken', 'API key or token'],
    ['clientSecret', 'API key or token'],
    ['privateKey', 'API key or token'],
    ['awsSecretKey', 'API key or token'],
    ['credentials', 'API key or token'],
    ['creditCardNumber', 'payment card or bank account'],
    ['cardNumber', 'payment card or bank account'],
    ['cvv', 'payment card or bank account'],
    ['CVC', 'payment card or bank account'],
    ['expiryDate', 'payment card or bank account'],
    ['otp', 'verification code'],
    ['verificationCode', 'verification code'],
    ['oneTimePassword', 'password'],
    ['mfaCode', 'verification code'],
    ['2fa', 'verification code'],
    ['smsCode', 'verification code'],
    ['recoveryCode', 'verification code'],
  ])('refuses a field named %p as a %s', (name, expected) => {
    expect(concept(name)).toBe(expected);
  });

  it('looks at the title and description too, not only the name', () => {
    expect(concept('field1', { title: 'Your password' })).toBe('password');
    expect(concept('field2', { description: 'Paste your GitHub personal access token here' })).toBe(
      'API key or token',
    );
    expect(concept('field3', { title: 'Card', description: 'The CVV on the back' })).toBe(
      'payment card or bank account',
    );
  });

  it('refuses format "password" whatever the name', () => {
    expect(concept('answer', { format: 'password' })).toBe('password');
  });

  it.each([
    'name',
    'email',
    'color',
    'amount',
    'approve',
    'quantity',
    'city',
    'startDate',
    'username',
    'comment',
    'passport',
    'company',
    'spanish',
    'keyboardLayout',
  ])('accepts the innocuous field %p', (name) => {
    expect(concept(name)).toBeUndefined();
  });

  it.each([
    ['pin', 'password'],
    ['securityAnswer', 'password'],
    ['Enter the code we texted you', 'verification code'],
    ['socialSecurityNumber', 'government identifier'],
    ['ssn', 'government identifier'],
    ['seedPhrase', 'recovery phrase'],
    ['mnemonic', 'recovery phrase'],
    ['bankAccountNumber', 'payment card or bank account'],
    ['iban', 'payment card or bank account'],
    ['sessionId', 'API key or token'],
    ['cookie', 'API key or token'],
    ['APITOKEN', 'API key or token'],
    ['token', 'API key or token'],
  ])('refuses %p as a %s', (name, expected) => {
    expect(concept(name)).toBe(expected);
  });

  it.each(['tokenCount', 'maxTokens', 'max_tokens', 'tokenLimit', 'secretSantaName'])(
    'accepts %p, which only mentions the word',
    (name) => {
      expect(concept(name)).toBeUndefined();
    },
  );

  it('is extensible: a custom concept list replaces the defaults', () => {
    const custom = new ConceptSecretFieldPolicy({
      ...DEFAULT_SECRET_CONCEPTS,
      'employee id': /\bemployee (id|number)\b/,
    });
    expect(custom.secretConcept({ name: 'employeeId' })).toBe('employee id');
    expect(custom.secretConcept({ name: 'password' })).toBe('password');
    const onlyPins = new ConceptSecretFieldPolicy({ pin: /\bpin\b/ });
    expect(onlyPins.secretConcept({ name: 'password' })).toBeUndefined();
    expect(onlyPins.secretConcept({ name: 'pin' })).toBe('pin');
  });
});
