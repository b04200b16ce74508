// An error that carries a catalogued code (src/run/codes.ts). Each failure kind of the engine
// subclasses it, so callers can tell them apart with instanceof and still read one `code`.
export class CodedError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}
