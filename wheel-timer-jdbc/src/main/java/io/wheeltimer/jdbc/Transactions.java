package io.wheeltimer.jdbc;

import java.util.function.Supplier;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The timer's transactions on its {@code DataSource}: the caller's, when it has one, else one of the
 * timer's own; and what runs once one commits.
 */
final class Transactions {

    private final TransactionTemplate template;
    private final String owner;

    /** @param owner names the timer in errors: its instance id and table */
    Transactions(PlatformTransactionManager manager, String owner) {
        this.template = new TransactionTemplate(manager);
        this.owner = owner;
    }

    /**
     * Runs {@code work} in a transaction: the caller's, when it has one on this {@code DataSource},
     * else one of its own committed before returning. Failing to begin or commit one is a
     * {@link org.springframework.dao.DataAccessException}, as the statements' own failures are.
     */
    <T> T required(Supplier<T> work) {
        try {
            return template.execute(status -> work.get());
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

    /** The template itself, for a caller that handles the transaction's failures on its own. */
    TransactionTemplate template() {
        return template;
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
