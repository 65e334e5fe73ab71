package io.wheeltimer.sample;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses request bodies over {@code orders.max-request-size} with a 413 problem detail: at once when
 * the Content-Length says so, else (chunked) as soon as the reader passes the limit.
 */
@Component
class BodyLimitFilter extends OncePerRequestFilter {

    /** Reading went past the limit; {@link ProblemHandler} turns it into 413. */
    static final class TooLarge extends IOException {
        TooLarge(long limit) {
            super("The request body is larger than " + limit + " bytes, the most allowed (orders.max-request-size).");
        }
    }

    private final long limit;

    BodyLimitFilter(OrdersProperties properties) {
        this.limit = properties.maxRequestSize().toBytes();
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (request.getContentLengthLong() > limit) {
            Problems.write(
                    response, 413, "Request body too large", new TooLarge(limit).getMessage(), request.getRequestURI());
            return;
        }
        chain.doFilter(new Limited(request, limit), response);
    }

    private static final class Limited extends HttpServletRequestWrapper {
        private final long limit;
        private ServletInputStream in;

        Limited(HttpServletRequest request, long limit) {
            super(request);
            this.limit = limit;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (in == null) {
                in = new CountingStream(super.getInputStream(), limit);
            }
            return in;
        }
    }

    private static final class CountingStream extends ServletInputStream {
        private final ServletInputStream in;
        private final long limit;
        private long read;

        CountingStream(ServletInputStream in, long limit) {
            this.in = in;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) throws TooLarge {
            read += n;
            if (read > limit) {
                throw new TooLarge(limit);
            }
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }
    }
}
