package io.wheeltimer.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Timeouts kept in a database table: they survive restarts, crashes and deploys, and with several
 * instances on one database each one fires once, from the wheel of the instance that holds it.
 *
 * <p>A timeout is named by its task (the {@link DurableTimerTask @DurableTimerTask} handler that
 * runs it) and a key (what it is about, for example an order id); there is at most one pending
 * timeout per task and key. Task and key are 1 to 200 characters, not blank, and compare exactly.
 * Deadlines are kept in milliseconds. A timeout may carry data: a {@code String} is stored as given,
 * another object as the timer's {@link DurableDataCodec} writes it (without one, only {@code String}
 * data is accepted); {@code null} data means none. Its handler reads it from
 * {@link DurableTimeout#data()}.
 *
 * <p>Every method throws {@link NullPointerException} for a null argument,
 * {@link IllegalArgumentException} for a blank or too long task or key (naming it and what is
 * allowed), and Spring's {@link org.springframework.dao.DataAccessException} when the database
 * cannot be reached.
 */
public interface DurableTimer {

    /**
     * Schedules the timeout of {@code task} for {@code key} to fire after {@code delay}, or moves the
     * deadline of the pending one. The deadline is now plus {@code delay}, truncated to
     * milliseconds; a delay of zero or less is due at once.
     *
     * @throws IllegalArgumentException also if no handler handles {@code task}, or {@code delay} is
     *     too long to represent
     */
    DurableTimeout schedule(String task, String key, Duration delay);

    /**
     * Schedules the timeout of {@code task} for {@code key} to fire at {@code deadline}, or moves the
     * deadline of the pending one. A deadline in the past is due at once; it is kept as given,
     * truncated to milliseconds, so that the lateness reported is honest.
     *
     * @throws IllegalArgumentException also if no handler handles {@code task}, or {@code deadline}
     *     is beyond the range of epoch milliseconds
     */
    DurableTimeout schedule(String task, String key, Instant deadline);

    /**
     * As {@link #schedule(String, String, Duration)}, with {@code data} stored with the timeout and
     * handed to its handler. Scheduling a key again replaces its timeout whole: without data, no old
     * data is kept.
     *
     * @throws IllegalArgumentException also if {@code data} is of a type the timer cannot write
     *     (without a codec, anything but a {@code String}), or its stored text is larger than the
     *     timer's maximum data size (counted in UTF-8 bytes); then nothing is written
     */
    DurableTimeout schedule(String task, String key, Duration delay, Object data);

    /**
     * As {@link #schedule(String, String, Instant)}, with {@code data} stored with the timeout and
     * handed to its handler. Scheduling a key again replaces its timeout whole: without data, no old
     * data is kept.
     *
     * @throws IllegalArgumentException also if {@code data} is of a type the timer cannot write
     *     (without a codec, anything but a {@code String}), or its stored text is larger than the
     *     timer's maximum data size (counted in UTF-8 bytes); then nothing is written
     */
    DurableTimeout schedule(String task, String key, Instant deadline, Object data);

    /**
     * Schedules every timeout of {@code timeouts} (their task, key, deadline and data; {@code attempt}
     * is ignored) in one transaction, the caller's when it has one, in JDBC batches. All or nothing:
     * every element is checked as {@code schedule} checks its arguments before anything is written.
     * When two elements name the same task and key, the last one wins.
     *
     * @return how many timeouts were written: one per distinct task and key
     * @throws NullPointerException if {@code timeouts}, an element, or its task, key or deadline is null
     * @throws IllegalArgumentException naming the element at fault, as {@code schedule} would
     */
    int scheduleAll(Collection<DurableTimeout> timeouts);

    /**
     * Removes the pending timeouts of {@code task} for {@code keys}, in one transaction, the caller's
     * when it has one. All or nothing: every key is checked before anything is removed.
     *
     * @return how many pending timeouts were removed
     */
    int cancelAll(String task, Collection<String> keys);

    /**
     * Removes the pending timeout of {@code task} for {@code key}.
     *
     * @return {@code true} only when a pending timeout was removed; {@code false} when none was
     *     pending (never scheduled, already run, already cancelled, or given up)
     */
    boolean cancel(String task, String key);

    /** The pending timeout of {@code task} for {@code key}, if any. */
    Optional<DurableTimeout> find(String task, String key);

    /**
     * Pending timeouts in the whole table (not only those this instance holds), soonest deadline
     * first, each with the number of the run that comes next.
     *
     * @param task the task, or {@code null} for every task
     * @param limit 1 to 1000
     * @throws IllegalArgumentException if {@code limit} is out of range
     */
    List<DurableTimeout> pending(String task, int limit);

    /**
     * Timeouts given up after too many failed runs, latest failure first.
     *
     * @param task the task, or {@code null} for every task
     * @param limit 1 to 1000
     * @throws IllegalArgumentException if {@code limit} is out of range
     */
    List<FailedTimeout> failed(String task, int limit);

    /**
     * Runs a given-up timeout again, at once: it becomes pending, due now, with its data and
     * scheduled deadline, and its runs count from 1 again.
     *
     * @return {@code true} when a given-up timeout of {@code task} for {@code key} was found and made
     *     pending; {@code false} when there was none (a pending one is left as it is)
     */
    boolean retry(String task, String key);

    /**
     * Deletes a given-up timeout.
     *
     * @return {@code true} when a given-up timeout was deleted; {@code false} when there was none (a
     *     pending one is left as it is: {@link #cancel} removes it)
     */
    boolean discard(String task, String key);
}
