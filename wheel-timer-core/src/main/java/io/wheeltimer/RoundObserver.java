package io.wheeltimer;

/**
 * Told by the worker where each of its rounds is: the start, the end of each phase, the end. The
 * worker reads its observer once per round; the default, {@link #NONE}, does nothing, so the loop
 * pays for no clock reads of its own to be observed ({@link WorkerProfile} reads them).
 */
interface RoundObserver {

    /** Taking the hand-offs (new and cancelled timeouts) and answering the queries. */
    int TAKE = 0;
    /** Moving to a tick and cascading what starts there; also the end-of-round bookkeeping. */
    int CASCADE = 1;
    /** Taking a tick's due entries out of their bucket; also reading entries ahead. */
    int EXPIRE = 2;
    /** Running the due tasks or handing them to the executor. */
    int DISPATCH = 3;

    RoundObserver NONE = new RoundObserver() {};

    /** A round starts, at {@code startNanos} (System.nanoTime). */
    default void startRound(long startNanos) {}

    /** The phase {@code phase} (one of the constants above) ended: the time since the last mark was spent on it. */
    default void endPhase(int phase) {}

    /** The round ends: the time since the last mark was the round's bookkeeping ({@link #CASCADE}). */
    default void endRound() {}
}
