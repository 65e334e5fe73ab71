package io.wheeltimer.jdbc;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ReflectionUtils;

/**
 * The timer's transactions on its {@code DataSource}: the caller's, when it has one, else one of the
 * timer's own; and what runs once one commits. Each entry point says in its name what it guarantees:
 *
 * <ul>
 *   <li>{@link #joinedOrOwn}, {@link #joinedOrOwnNoResult}: the caller's transaction, else one of the
 *       timer's own; never auto-commit, so that several statements commit together or not at all.
 *   <li>{@link #joinedOrOwnThenOnCommit}: the same, then a hook once it commits (never on a rollback).
 *   <li>{@link #joinedOrAutoCommit}: one statement in the caller's transaction; outside any
 *       transaction scope, alone on a connection in auto-commit mode.
 *   <li>{@link #joinedOrAutoCommitThenOnCommit}: the same, then a hook once it commits.
 * </ul>
 *
 * <p><b>One statement, one round trip.</b> An application's {@code schedule} or {@code cancel} is one
 * statement. Outside any transaction, a transaction of the timer's own would cost a {@code COMMIT}
 * round trip besides it, and Spring's bookkeeping around both: about a third of the call's time on
 * PostgreSQL. So when the calling thread has no Spring-managed transaction (no synchronization, no
 * connection bound to the timer's {@code DataSource}), the statement runs alone on a connection in
 * auto-commit mode, which commits it before it returns. A pool that hands out connections with
 * auto-commit off gets the transaction of the timer's own, as any caller inside a transaction
 * scope does (whatever its manager or propagation: the transaction manager decides, as before).
 */
final class Transactions {

    private final PlatformTransactionManager manager;
    private final TransactionDefinition definition = TransactionDefinition.withDefaults();
    private final DataSource dataSource;
    /** The manager's {@code DataSource}, when it names one and it is not {@link #dataSource}: bound under it too. */
    private final DataSource managedDataSource;

    private final String owner;

    /**
     * @param dataSource the timer's, which its statements run on
     * @param owner names the timer in errors: its instance id and table
     */
    Transactions(PlatformTransactionManager manager, DataSource dataSource, String owner) {
        this.manager = manager;
        this.dataSource = dataSource;
        DataSource managed = managedDataSource(manager);
        this.managedDataSource = managed == dataSource ? null : managed;
        this.owner = owner;
    }

    /**
     * Runs {@code work}, one statement, in a transaction: the caller's, when it has one on this
     * {@code DataSource}, else its own, committed before this returns (outside any transaction scope,
     * alone in auto-commit mode). Failing to begin or commit one is a
     * {@link org.springframework.dao.DataAccessException}, as the statement's own failures are.
     */
    <T> T joinedOrAutoCommit(Supplier<T> work) {
        return joinedOrAutoCommitThenOnCommit(work, result -> {});
    }

    /**
     * Runs {@code statement}, as {@link #joinedOrAutoCommit} does, and then {@code committed} with its result
     * once it is committed: after the caller's transaction commits (never if it rolls back), or
     * before this returns when the statement committed on its own.
     */
    <T> T joinedOrAutoCommitThenOnCommit(Supplier<T> statement, Consumer<? super T> committed) {
        Connection autoCommitting = inCallersScope() ? null : autoCommittingConnection();
        if (autoCommitting != null) {
            T result;
            try {
                result = onConnection(autoCommitting, statement);
            } finally {
                DataSourceUtils.releaseConnection(autoCommitting, dataSource);
            }
            committed.accept(result);
            return result;
        }
        return joinedOrOwnThenOnCommit(statement, committed);
    }

    /**
     * Runs {@code work}, several statements, in one transaction: the caller's, when it has one on this
     * {@code DataSource}, else its own, even outside any transaction scope (never auto-commit, so that
     * they commit together or not at all); then {@code committed} with its result once it is committed.
     */
    <T> T joinedOrOwnThenOnCommit(Supplier<T> work, Consumer<? super T> committed) {
        try {
            return joinedOrOwn(status -> {
                T result = work.get();
                afterCommit(() -> committed.accept(result));
                return result;
            });
        } catch (CannotCreateTransactionException | TransactionSystemException e) {
            throw new DataAccessResourceFailureException(
                    "Durable timer " + owner + ": no transaction: " + e.getMessage(), e);
        }
    }

    /**
     * Whether the calling thread is in a Spring-managed transaction scope, or has a connection bound to
     * the timer's {@code DataSource}: then the transaction manager decides whether the work joins a
     * transaction or gets one of its own.
     */
    private boolean inCallersScope() {
        return TransactionSynchronizationManager.isSynchronizationActive()
                || TransactionSynchronizationManager.hasResource(dataSource)
                || (managedDataSource != null && TransactionSynchronizationManager.hasResource(managedDataSource));
    }

    /**
     * A connection of the timer's {@code DataSource} in auto-commit mode; null, and none kept, when the
     * pool hands out connections with auto-commit off (checked every time: it reads a flag).
     */
    private Connection autoCommittingConnection() {
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            if (connection.getAutoCommit()) {
                return connection;
            }
        } catch (SQLException e) {
            DataSourceUtils.releaseConnection(connection, dataSource);
            throw new DataAccessResourceFailureException(
                    "Durable timer " + owner + ": a connection that cannot tell its auto-commit mode: "
                            + e.getMessage(),
                    e);
        }
        DataSourceUtils.releaseConnection(connection, dataSource);
        return null;
    }

    /**
     * Runs {@code statement} on {@code connection}, bound to the thread for the statement's
     * {@code JdbcTemplate} to find, and unbound after.
     */
    private <T> T onConnection(Connection connection, Supplier<T> statement) {
        TransactionSynchronizationManager.bindResource(dataSource, new ConnectionHolder(connection));
        try {
            return statement.get();
        } finally {
            TransactionSynchronizationManager.unbindResource(dataSource);
        }
    }

    /**
     * Runs {@code work} in a transaction (the caller's, or one of its own), as Spring's
     * {@code TransactionTemplate} does, but without its ERROR line when the rollback after a failure
     * fails too (a database that went away): the timer reports its failures itself, throttled, and
     * the rollback's failure travels as a suppressed exception of the one that caused it.
     */
    <T> T joinedOrOwn(TransactionCallback<T> work) {
        TransactionStatus status = manager.getTransaction(definition);
        T result;
        try {
            result = work.doInTransaction(status);
        } catch (RuntimeException | Error e) {
            try {
                manager.rollback(status);
            } catch (RuntimeException | Error rollbackFailed) {
                e.addSuppressed(rollbackFailed);
            }
            throw e;
        }
        manager.commit(status);
        return result;
    }

    /** Runs {@code work} in a transaction, as {@link #joinedOrOwn} does, for work with no result. */
    void joinedOrOwnNoResult(Runnable work) {
        joinedOrOwn(status -> {
            work.run();
            return null;
        });
    }

    /**
     * Checks that {@code manager} runs its transactions on {@code dataSource}: otherwise the deletion
     * that starts a run would commit on its own before the handler runs, and a handler that throws
     * would lose its timeout. A manager that names no {@code DataSource} (JTA) cannot be checked.
     *
     * @throws IllegalArgumentException naming both when the manager manages another {@code DataSource}
     */
    static void checkManages(PlatformTransactionManager manager, DataSource dataSource) {
        DataSource managed = managedDataSource(manager);
        if (managed != null && unwrap(managed) != unwrap(dataSource)) {
            throw new IllegalArgumentException("transactionManager " + manager + " manages DataSource " + managed
                    + ", not the durable timer's DataSource " + dataSource + "; it must manage the timer's"
                    + " DataSource, so that a handler's writes commit with the removal of its timeout");
        }
    }

    /** The {@code DataSource} of a JDBC, JPA or Hibernate transaction manager; null when it names none. */
    static DataSource managedDataSource(PlatformTransactionManager manager) {
        if (manager instanceof DataSourceTransactionManager jdbcManager) {
            return jdbcManager.getDataSource();
        }
        // JpaTransactionManager and HibernateTransactionManager (spring-orm, not a dependency here).
        Method getter = ReflectionUtils.findMethod(manager.getClass(), "getDataSource");
        if (getter == null || !DataSource.class.isAssignableFrom(getter.getReturnType())) {
            return null;
        }
        try {
            ReflectionUtils.makeAccessible(getter);
            return (DataSource) ReflectionUtils.invokeMethod(getter, manager);
        } catch (RuntimeException e) {
            return null; // cannot be asked: not checked, as for a manager that names no DataSource
        }
    }

    /** The target behind Spring's proxies of a {@code DataSource} (transaction-aware, lazy, delegating). */
    private static DataSource unwrap(DataSource dataSource) {
        DataSource current = dataSource;
        while (current instanceof DelegatingDataSource delegating && delegating.getTargetDataSource() != null) {
            current = delegating.getTargetDataSource();
        }
        return current;
    }

    /** Runs {@code action} after the current transaction commits; never if it rolls back. */
    private static void afterCommit(Runnable action) {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    action.run();
                }
            });
        } else {
            // A transaction manager that never synchronizes: the statement is done; act now.
            action.run();
        }
    }
}
