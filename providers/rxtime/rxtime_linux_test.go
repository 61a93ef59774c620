package rxtime

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// loopbackPair is a connected TCP pair on 127.0.0.1, closed at the end.
func loopbackPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = ln.Accept()
	if err != nil {
		client.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// TestArrivalIsKernelReceiveTime: bytes that sat in the socket for 50 ms
// before being read are stamped with when they arrived, not when read.
func TestArrivalIsKernelReceiveTime(t *testing.T) {
	client, server := loopbackPair(t)
	rx := New(client)
	if _, ok := rx.(*rxReader); !ok {
		t.Fatalf("no receive timestamps on a loopback TCP connection (%T)", rx)
	}
	buf := make([]byte, 64)
	// The kernel switches stamping on and off asynchronously as sockets
	// ask for it and close (other tests' too), so a read may come without
	// a stamp and take its own time; only stamped reads are checked, and
	// three must come within ten tries.
	stamped := 0
	for try := 0; stamped < 3; try++ {
		if try == 10 {
			t.Fatalf("only %d of 10 reads came with a kernel receive timestamp", stamped)
		}
		sent := time.Now()
		if _, err := server.Write([]byte("data: x\n\n")); err != nil {
			t.Fatal(err)
		}
		const held = 50 * time.Millisecond
		time.Sleep(held)
		n, err := rx.Read(buf)
		read := time.Now()
		if err != nil || n != 9 {
			t.Fatalf("try %d: Read = %d, %v", try, n, err)
		}
		if !rx.(*rxReader).kernel {
			continue
		}
		stamped++
		at := rx.Arrived()
		// Tolerances: the write and the kernel's stamp are microseconds
		// apart on loopback; 10 ms allows for a descheduled test.
		if at.Before(sent) || at.Sub(sent) > 10*time.Millisecond {
			t.Errorf("try %d: arrival %v after the write, want within 10ms", try, at.Sub(sent))
		}
		if read.Sub(at) < held-time.Millisecond {
			t.Errorf("try %d: arrival only %v before the read; the bytes waited %v", try, read.Sub(at), held)
		}
	}
	server.Close()
	if n, err := rx.Read(buf); n != 0 || err != io.EOF {
		t.Errorf("after close: Read = %d, %v; want 0, EOF", n, err)
	}
}

// TestArrivalReadHonoursDeadline: a read through the RawConn is unblocked
// by a deadline, as the lean client's cancellation needs.
func TestArrivalReadHonoursDeadline(t *testing.T) {
	client, _ := loopbackPair(t)
	rx := New(client)
	time.AfterFunc(30*time.Millisecond, func() { client.SetDeadline(time.Unix(1, 0)) })
	start := time.Now()
	_, err := rx.Read(make([]byte, 8))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Read = %v, want a timeout error", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("deadline took %v to unblock the read", d)
	}
}
