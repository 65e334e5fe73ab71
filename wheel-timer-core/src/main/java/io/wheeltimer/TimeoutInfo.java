package io.wheeltimer;

import java.time.Duration;

/**
 * A pending timeout as {@link HashedWheelTimer#upcoming(int)} reports it.
 *
 * @param task the task's {@code toString()}
 * @param remaining time until its deadline; zero if the deadline has passed and it is about to run
 */
public record TimeoutInfo(String task, Duration remaining) {}
