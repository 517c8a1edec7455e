/** The gateway's SQLite database under DATA_DIR. Apart from the driver, so naming it loads no database code. */
export const SQLITE_FILE_NAME = "ask-user-bridge.sqlite";

/** The database and the files SQLite puts beside it. */
export const SQLITE_FILES = [SQLITE_FILE_NAME, ...["-wal", "-shm", "-journal"].map((suffix) => `${SQLITE_FILE_NAME}${suffix}`)] as const;
