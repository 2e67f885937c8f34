// What every part of the user-app test shares about the app it drives.

/** The user app's tools, in registration order. */
export const TOOLS = ['greet', 'delete_file', 'connect_github', 'plan_trip', 'export_report'];

/** Each test's bound: generous, only there to end a hang (times are never asserted). */
export const HANG_GUARD = { timeout: 60_000 };
