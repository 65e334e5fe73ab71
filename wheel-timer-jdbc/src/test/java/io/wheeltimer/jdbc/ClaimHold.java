package io.wheeltimer.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * A {@code DataSource} that, once asked, holds the thread that commits the next claim (a
 * transaction that ran a {@code SKIP LOCKED} statement) right after its commit, until released: so a
 * test can put a newer write of the claimed row between the claim's commit and its arming.
 */
final class ClaimHold {

    private final DataSource target;
    private final AtomicBoolean armed = new AtomicBoolean();
    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    ClaimHold(DataSource target) {
        this.target = target;
    }

    void holdTheNextClaim() {
        armed.set(true);
    }

    void awaitHeld() {
        try {
            if (!held.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("no claim was committed within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    void release() {
        released.countDown();
    }

    DataSource dataSource() {
        return (DataSource) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    return result instanceof Connection connection ? watch(connection) : result;
                });
    }

    private Connection watch(Connection connection) {
        AtomicBoolean claimed = new AtomicBoolean();
        return (Connection) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().startsWith("prepare")
                            && args != null
                            && args[0] instanceof String sql
                            && sql.contains("SKIP LOCKED")) {
                        claimed.set(true);
                    }
                    Object result = invoke(connection, method, args);
                    if (method.getName().equals("commit")
                            && claimed.getAndSet(false)
                            && armed.compareAndSet(true, false)) {
                        held.countDown();
                        released.await(10, TimeUnit.SECONDS);
                    }
                    return result;
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
