package io.wheeltimer.jdbc;

import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

/**
 * Marks the method of a Spring bean that handles the durable timeouts of one task. The method takes
 * one parameter, {@code String key} or {@link DurableTimeout}, and returns {@code void}. It runs in a
 * transaction that first removes the timeout's row, so what it writes through the timer's
 * {@code DataSource} commits together with that removal, exactly once.
 */
@Target(METHOD)
@Retention(RUNTIME)
@Documented
public @interface DurableTimerTask {

    /** The task name, as given to {@link DurableTimer#schedule}. */
    String value();
}
