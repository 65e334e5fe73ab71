package io.wheeltimer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * {@link HashedWheelTimer#upcoming}: only the worker may read the wheel, so another thread asks it
 * through a queue and waits; the worker answers between tasks ({@link #answer}).
 *
 * <p>Thread safe: any thread asks; the worker answers.
 */
final class Upcoming {

    /** A request for the upcoming timeouts from another thread, answered by the worker. */
    private static final class Query {
        final int limit;
        final CompletableFuture<List<TimeoutInfo>> result = new CompletableFuture<>();

        Query(int limit) {
            this.limit = limit;
        }
    }

    private final Timer front;
    private final Ticker ticker;
    private final Lifecycle lifecycle;
    private final ConcurrentLinkedQueue<Query> queries = new ConcurrentLinkedQueue<>();

    Upcoming(Timer front, Ticker ticker, Lifecycle lifecycle) {
        this.front = front;
        this.ticker = ticker;
        this.lifecycle = lifecycle;
    }

    /**
     * Up to {@code limit} upcoming timeouts: none if the timer is not active; from {@code worker} at
     * once on its own thread (a task asks); from another, asked through the queue and waited for,
     * {@value HashedWheelTimer#UPCOMING_WAIT_SECONDS} seconds at most.
     *
     * @throws IllegalArgumentException if {@code limit} is negative
     */
    List<TimeoutInfo> ask(int limit, Worker worker) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0, was " + limit);
        }
        if (limit == 0 || !lifecycle.isActive()) {
            return List.of();
        }
        Thread workerThread = lifecycle.workerThread();
        if (Thread.currentThread() == workerThread) {
            return worker.upcoming(limit);
        }
        Query query = new Query(limit);
        queries.add(query);
        ticker.wake(workerThread);
        long giveUpNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(HashedWheelTimer.UPCOMING_WAIT_SECONDS);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return query.result.get(100, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    if (!workerThread.isAlive()) {
                        return List.of(); // stopped before it saw the query
                    }
                    if (System.nanoTime() - giveUpNanos > 0) {
                        throw new IllegalStateException("The worker thread of " + front + " has not answered within "
                                + HashedWheelTimer.UPCOMING_WAIT_SECONDS + " s: a task is holding it (see tickLag)");
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw new IllegalStateException("upcoming failed on the worker", e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Worker thread: whether a query waits for an answer. */
    boolean hasQueries() {
        return !queries.isEmpty();
    }

    /** Worker thread: answers the waiting queries from {@code soonest}, which lists up to n pending timeouts. */
    void answer(IntFunction<List<TimeoutInfo>> soonest) {
        List<TimeoutInfo> found = null;
        for (Query query; (query = queries.poll()) != null; ) {
            if (found == null || found.size() < query.limit) {
                found = soonest.apply(Math.max(query.limit, found == null ? 0 : found.size()));
            }
            query.result.complete(List.copyOf(found.subList(0, Math.min(query.limit, found.size()))));
        }
    }

    /** Worker thread, on stop: answers the waiting queries with nothing. */
    void drain() {
        for (Query query; (query = queries.poll()) != null; ) {
            query.result.complete(List.of());
        }
    }

    /**
     * Worker thread only: up to {@code limit} pending timeouts that {@code sources} offers, soonest
     * first, the user's own (a module's notices are not the timer's timeouts). O(pending * log limit).
     *
     * @param elapsedNanos reads the time since start, which the remaining times are measured from:
     *     after the sources were visited, so that a timeout pushed meanwhile never shows more than its
     *     delay
     */
    static List<TimeoutInfo> soonest(int limit, Consumer<Consumer<TimeoutHandle>> sources, LongSupplier elapsedNanos) {
        Comparator<TimeoutHandle> byDeadline = Comparator.comparingLong(h -> h.deadlineNanos);
        PriorityQueue<TimeoutHandle> latestFirst = new PriorityQueue<>(byDeadline.reversed()); // limit may be huge
        sources.accept(handle -> {
            int s = handle.state();
            if (!handle.counted || s != TimeoutHandle.PENDING && s != TimeoutHandle.IN_WHEEL) {
                return;
            }
            latestFirst.add(handle);
            if (latestFirst.size() > limit) {
                latestFirst.poll();
            }
        });
        List<TimeoutHandle> handles = new ArrayList<>(latestFirst);
        handles.sort(byDeadline);
        long nowNanos = elapsedNanos.getAsLong();
        List<TimeoutInfo> infos = new ArrayList<>(handles.size());
        for (TimeoutHandle handle : handles) {
            long remainingNanos = handle.deadlineNanos - nowNanos;
            infos.add(new TimeoutInfo(handle.describeTask(), Duration.ofNanos(Math.max(remainingNanos, 0))));
        }
        return infos;
    }
}
