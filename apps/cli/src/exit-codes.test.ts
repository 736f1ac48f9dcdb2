import { SqlloadError } from "@sqlload/core";
import { describe, expect, it } from "vitest";
import { ExitCode, exitCodeForError } from "./exit-codes.js";

describe("exitCodeForError", () => {
  it("reads the exit code from the code's category", () => {
    expect(exitCodeForError(new SqlloadError("SL102", "unknown key"))).toBe(ExitCode.usage);
    expect(exitCodeForError(new SqlloadError("SL204", "two cursor kinds"))).toBe(ExitCode.usage);
    expect(exitCodeForError(new SqlloadError("SL403", "failed to load"))).toBe(ExitCode.usage);
    expect(exitCodeForError(new SqlloadError("SL305", "write failed"))).toBe(ExitCode.tableFailed);
    expect(exitCodeForError(new SqlloadError("SL309", "login refused"))).toBe(ExitCode.tableFailed);
    expect(exitCodeForError(new SqlloadError("SL308", "refused"))).toBe(ExitCode.retryLater);
    expect(exitCodeForError(new SqlloadError("SL307", "interrupted"))).toBe(ExitCode.interrupted);
    expect(exitCodeForError(new SqlloadError("SL900", "bug"))).toBe(ExitCode.tableFailed);
  });

  it("exits 75 for an error its raise site made retryable", () => {
    expect(exitCodeForError(new SqlloadError("SL304", "connection lost", { retryable: true }))).toBe(ExitCode.retryLater);
  });

  it("exits 1 for anything that is not a SqlloadError", () => {
    expect(exitCodeForError(new Error("boom"))).toBe(ExitCode.tableFailed);
  });
});
