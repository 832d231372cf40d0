import { DomainError } from '@glp/service-kit';

/** The DomainError a call rejects with (a use case's refusal), failing the test when it resolves or throws otherwise. */
export async function rejection(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a DomainError');
}
