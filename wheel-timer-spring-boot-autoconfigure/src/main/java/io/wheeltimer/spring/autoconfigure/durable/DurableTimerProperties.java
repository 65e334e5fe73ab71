package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.jdbc.TimeSource;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.util.unit.DataSize;

/**
 * Settings of the auto-configured {@code durableTimer}, under {@code wheel-timer.durable}. Checked
 * together at startup by {@link DurableTimerSettings}.
 */
@ConfigurationProperties("wheel-timer.durable")
public class DurableTimerProperties {

    /**
     * Whether to auto-configure durable timeouts (when the application has a DataSource).
     */
    private boolean enabled = true;

    /**
     * Table of the durable timeouts; the instances' leases are kept in a second table named after
     * it with the suffix _instances. A plain SQL identifier of at most 50 characters: a letter or
     * underscore, then letters, digits or underscores; not a word that H2, PostgreSQL, MariaDB or
     * MySQL reserves (order, user).
     */
    private String tableName = JdbcDurableTimer.DEFAULT_TABLE_NAME;

    /**
     * When to create the tables from the scripts shipped for H2, PostgreSQL, MariaDB and MySQL:
     * embedded (only on an embedded database), always, or never (the tables come from a migration
     * tool).
     */
    private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

    /**
     * How often an instance claims due timeouts and renews its lease. At least 1ms.
     */
    private Duration pollInterval = JdbcDurableTimer.DEFAULT_POLL_INTERVAL;

    /**
     * How far ahead of their deadline unheld timeouts are claimed. At least the poll interval.
     */
    private Duration lookahead = JdbcDurableTimer.DEFAULT_LOOKAHEAD;

    /**
     * How long a claim holds without renewal: after it runs out, the other instances take over the
     * timeouts of an instance whose death the database cannot see (a frozen host, a partition; on H2,
     * any death). One whose sessions ended (a crash, kill -9) is taken over at their next poll. More
     * than twice the poll interval.
     */
    private Duration lease = JdbcDurableTimer.DEFAULT_LEASE;

    /**
     * Most timeouts claimed in one poll. At least 1.
     */
    private int batchSize = JdbcDurableTimer.DEFAULT_BATCH_SIZE;

    /**
     * Wait before the first retry of a run that threw. Each further retry waits twice as long as
     * the one before, at most retry-max-delay, each stretched or shrunk by a random factor of up to
     * 20%. At least 1ms.
     */
    private Duration retryDelay = JdbcDurableTimer.DEFAULT_RETRY_DELAY;

    /**
     * Longest wait between two retries of a run that threw, before its random factor of up to 20%;
     * never less than retry-delay. At least 1ms. With the defaults, the attempts span over 30
     * minutes.
     */
    private Duration retryMaxDelay = JdbcDurableTimer.DEFAULT_RETRY_MAX_DELAY;

    /**
     * Runs that throw before a timeout is given up (logged at ERROR, counted, kept in the table).
     * At least 1.
     */
    private int maxAttempts = JdbcDurableTimer.DEFAULT_MAX_ATTEMPTS;

    /**
     * Largest data stored with one timeout, counted in UTF-8 bytes of the stored text (a String as
     * given, another object as JSON); a larger one is refused when it is scheduled. From 1B to 16MB less one byte.
     */
    private DataSize maxDataSize = JdbcDurableTimer.DEFAULT_MAX_DATA_SIZE;

    /**
     * Who this instance is in the table's holder column; empty for the host name and a random
     * suffix. At most 200 characters.
     */
    private String instanceId = "";

    /**
     * Whose clock judges deadlines and leases: database (each instance measures its offset to the
     * database's clock at every poll, so instances whose clocks disagree still fire on time) or
     * instance (each instance's own clock, as a test that drives time by hand needs).
     */
    private TimeSource timeSource = TimeSource.DATABASE;

    /**
     * Bean name of the HashedWheelTimer that fires the timeouts; empty for the auto-configured
     * wheelTimer.
     */
    private String timer = "";

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getTableName() {
        return tableName;
    }

    public void setTableName(String tableName) {
        this.tableName = tableName;
    }

    public DatabaseInitializationMode getInitializeSchema() {
        return initializeSchema;
    }

    public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
        this.initializeSchema = initializeSchema;
    }

    public Duration getPollInterval() {
        return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
        this.pollInterval = pollInterval;
    }

    public Duration getLookahead() {
        return lookahead;
    }

    public void setLookahead(Duration lookahead) {
        this.lookahead = lookahead;
    }

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    public int getBatchSize() {
        return batchSize;
    }

    public void setBatchSize(int batchSize) {
        this.batchSize = batchSize;
    }

    public Duration getRetryDelay() {
        return retryDelay;
    }

    public void setRetryDelay(Duration retryDelay) {
        this.retryDelay = retryDelay;
    }

    public Duration getRetryMaxDelay() {
        return retryMaxDelay;
    }

    public void setRetryMaxDelay(Duration retryMaxDelay) {
        this.retryMaxDelay = retryMaxDelay;
    }

    public int getMaxAttempts() {
        return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    public DataSize getMaxDataSize() {
        return maxDataSize;
    }

    public void setMaxDataSize(DataSize maxDataSize) {
        this.maxDataSize = maxDataSize;
    }

    public String getInstanceId() {
        return instanceId;
    }

    public void setInstanceId(String instanceId) {
        this.instanceId = instanceId;
    }

    public TimeSource getTimeSource() {
        return timeSource;
    }

    public void setTimeSource(TimeSource timeSource) {
        this.timeSource = timeSource;
    }

    public String getTimer() {
        return timer;
    }

    public void setTimer(String timer) {
        this.timer = timer;
    }
}
