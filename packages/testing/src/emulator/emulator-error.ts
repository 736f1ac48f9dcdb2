/** An error the emulator raises on purpose, with a kind the front end turns into its vendor's error shape. */
export class EmulatorError extends Error {
  constructor(
    readonly kind: "unsupported" | "conflict" | "not_allowed" | "not_found" | "transaction_open" | "no_transaction" | "injected",
    message: string,
  ) {
    super(message);
    this.name = "EmulatorError";
  }
}
