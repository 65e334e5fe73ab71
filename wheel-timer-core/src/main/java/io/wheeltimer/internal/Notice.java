package io.wheeltimer.internal;

import io.wheeltimer.TimerTask;

/**
 * A task that a module of wheel-timer runs on a timer's thread on its own behalf, not the user's
 * (the Netty view tells a task its timeout was cancelled this way). A {@code HashedWheelTimer}
 * runs it like any task but does not count it among its timeouts: it is in none of the timer's
 * counts, not held against its limit of pending timeouts, not listed by {@code upcoming} nor
 * returned by {@code stop()}, and its lateness is not reported. A stop still calls its {@code
 * cancelled}.
 *
 * <p>Internal to wheel-timer's modules: not an API, it may change in any release.
 */
public abstract class Notice implements TimerTask {

    protected Notice() {}
}
