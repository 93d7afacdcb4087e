if x:
	done()
