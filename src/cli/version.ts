// The version printed by --version and recorded in compiled plans (C-20).
/** switchyard's version, as --version prints it. */
export const VERSION = "0.1.0";
