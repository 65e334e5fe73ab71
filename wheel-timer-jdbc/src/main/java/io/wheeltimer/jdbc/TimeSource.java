package io.wheeltimer.jdbc;

/** Whose clock judges deadlines and leases: see {@link JdbcDurableTimer.Builder#timeSource}. */
public enum TimeSource {

    /**
     * The database's: each instance keeps the offset of its clock to the database's, measured at
     * every lease renewal, so instances whose clocks disagree still fire every timeout on time.
     */
    DATABASE,

    /** The builder's {@link java.time.Clock}: for tests that drive time by hand. */
    INSTANCE
}
