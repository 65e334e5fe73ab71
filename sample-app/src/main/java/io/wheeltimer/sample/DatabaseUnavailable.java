package io.wheeltimer.sample;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

/**
 * Tells a database that cannot serve the request right now (stopped, unreachable, out of connections
 * within {@code spring.datasource.hikari.connection-timeout}, a statement over
 * {@code spring.jdbc.template.query-timeout}, a deadlock) from a bug: the first is worth a retry, so it
 * answers 503 with {@code Retry-After}; the second is a 500.
 */
final class DatabaseUnavailable {

    /** Seconds a client should wait before it retries; about one connection timeout. */
    static final String RETRY_AFTER_SECONDS = "2";

    private DatabaseUnavailable() {}

    /**
     * Whether this failure, or one it wraps, says the database could not be reached or answer in time.
     *
     * @param failure what a request failed with
     * @return true for a failure a retry may not meet
     */
    static boolean causedBy(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof DataAccessResourceFailureException // CannotGetJdbcConnectionException among them
                    || t instanceof TransientDataAccessException // QueryTimeoutException, deadlocks
                    || t instanceof CannotCreateTransactionException // no connection to begin with
                    || t instanceof SQLTransientException
                    || t instanceof SQLRecoverableException
                    || t instanceof SQLNonTransientConnectionException
                    || (t instanceof SQLException sql && isConnectionState(sql.getSQLState()))) {
                return true;
            }
            // A rollback that failed on the broken connection hides the failure that started it.
            if (t instanceof TransactionSystemException tx
                    && tx.getApplicationException() != null
                    && causedBy(tx.getApplicationException())) {
                return true;
            }
        }
        return false;
    }

    /** SQLSTATE class 08: connection exception, whatever the driver's exception class. */
    private static boolean isConnectionState(String sqlState) {
        return sqlState != null && sqlState.startsWith("08");
    }
}
