type ErrorClass<E> = abstract new (...args: never[]) => E;

/** The error `act` throws, checked to be a `type`; the test fails when it throws nothing. */
export function thrownBy<E>(act: () => unknown, type: ErrorClass<E>): E {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as E;
  }
  throw new Error(`expected a ${type.name}`);
}

/** The error `promise` rejects with, checked to be a `type`; the test fails when it resolves. */
export async function rejectionOf<E>(promise: Promise<unknown>, type: ErrorClass<E>): Promise<E> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as E;
  }
  throw new Error(`expected a ${type.name}`);
}
