package io.wheeltimer.jdbc;

import java.lang.reflect.Method;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
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
 * timer's own; and what runs once one commits.
 */
final class Transactions {

    private final PlatformTransactionManager manager;
    private final TransactionDefinition definition = TransactionDefinition.withDefaults();
    private final String owner;

    /** @param owner names the timer in errors: its instance id and table */
    Transactions(PlatformTransactionManager manager, String owner) {
        this.manager = manager;
        this.owner = owner;
    }

    /**
     * Runs {@code work} in a transaction: the caller's, when it has one on this {@code DataSource},
     * else one of its own committed before returning. Failing to begin or commit one is a
     * {@link org.springframework.dao.DataAccessException}, as the statements' own failures are.
     */
    <T> T required(Supplier<T> work) {
        try {
            return execute(status -> work.get());
        } catch (CannotCreateTransactionException | TransactionSystemException e) {
            throw new DataAccessResourceFailureException(
                    "Durable timer " + owner + ": no transaction: " + e.getMessage(), e);
        }
    }

    /** Runs {@code work} in a transaction, as {@link #required} does, for work with no result. */
    void run(Runnable work) {
        required(() -> {
            work.run();
            return null;
        });
    }

    /**
     * Runs {@code work} in a transaction (the caller's, or one of its own), as Spring's
     * {@code TransactionTemplate} does, but without its ERROR line when the rollback after a failure
     * fails too (a database that went away): the timer reports its failures itself, throttled, and
     * the rollback's failure travels as a suppressed exception of the one that caused it.
     */
    <T> T execute(TransactionCallback<T> work) {
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

    /** Runs {@code work} in a transaction, as {@link #execute} does, for work with no result. */
    void executeWithoutResult(Runnable work) {
        execute(status -> {
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
    private static DataSource managedDataSource(PlatformTransactionManager manager) {
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
    static void afterCommit(Runnable action) {
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
