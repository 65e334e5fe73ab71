/**
 * Deferred work and time limits: what makes {@code @WheelTimeout} and {@code @WheelTimeLimit} work.
 * Their post-processors and interceptors, the annotated-method handling they share (attributes resolved
 * and checked at startup, the timer and executor a method uses, the caller's context carried to the
 * run), their auto-configuration, the report of a method that cannot work, and the AOT processing of
 * annotated methods (durable task methods included). The annotations themselves are public API in
 * {@code io.wheeltimer.spring}.
 */
package io.wheeltimer.spring.annotated;
