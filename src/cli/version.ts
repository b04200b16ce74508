// The version printed by --version and recorded in compiled plans (C-20).
export const VERSION = "0.1.0";
