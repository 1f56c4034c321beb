/** A command-line mistake: printed as its message alone, with exit code 2. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}
